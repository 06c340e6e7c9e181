/** Every route of product-spec.md section 2. Pages load lazily, one folder per screen, grouped by feature. */
import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router-dom';
import ProtectedRoute from './components/ProtectedRoute.tsx';
import { useTranslation } from 'react-i18next';

const AboutUsMain = lazy(() => import('./pages/public/AboutUsMain/index.tsx'));
const ContactUsMain = lazy(() => import('./pages/public/ContactUsMain/index.tsx'));
const AboutUs = lazy(() => import('./pages/public/AboutUs/index.tsx'));
const ContactUs = lazy(() => import('./pages/public/ContactUs/index.tsx'));
const ForgotPassword = lazy(() => import('./pages/account/ForgotPassword/index.tsx'));
const Verify = lazy(() => import('./pages/account/Verify/index.tsx'));
const ChangePassword = lazy(() => import('./pages/account/ChangePassword/index.tsx'));
const ChangePasswordSuccess = lazy(() => import('./pages/account/ChangePasswordSuccess/index.tsx'));
const KMeans = lazy(() => import('./pages/tools/KMeans/index.tsx'));
const TestToken = lazy(() => import('./pages/developer/TestToken/index.tsx'));
const Logout = lazy(() => import('./pages/account/Logout/index.tsx'));
const SignIn = lazy(() => import('./pages/account/SignIn/index.tsx'));
const SignUp = lazy(() => import('./pages/account/SignUp/index.tsx'));
const ApiDocs = lazy(() => import('./pages/developer/ApiDocs/index.tsx'));
const Home = lazy(() => import('./pages/home/Home/index.tsx'));
const Dashboard = lazy(() => import('./pages/home/Dashboard/index.tsx'));
const NewPassword = lazy(() => import('./pages/account/NewPassword/index.tsx'));
const Profile = lazy(() => import('./pages/account/Profile/index.tsx'));
const ProfileEdit = lazy(() => import('./pages/account/ProfileEdit/index.tsx'));
const ProfileChangePassword = lazy(() => import('./pages/account/ProfileChangePassword/index.tsx'));
const Bruise = lazy(() => import('./pages/bruise/Bruise/index.tsx'));
const ShowAreaAccuracy = lazy(() => import('./pages/bruise/ShowAreaAccuracy/index.tsx'));
const ViewPhotoResult = lazy(() => import('./pages/bruise/ViewPhotoResult/index.tsx'));
const Analysis = lazy(() => import('./pages/analysis/Analysis/index.tsx'));
const AnalysisResult = lazy(() => import('./pages/analysis/AnalysisResult/index.tsx'));
const ExportFeature = lazy(() => import('./pages/analysis/ExportFeature/index.tsx'));
const Resize = lazy(() => import('./pages/tools/Resize/index.tsx'));
const Crop = lazy(() => import('./pages/tools/Crop/index.tsx'));
const RemoveBackground = lazy(() => import('./pages/tools/RemoveBackground/index.tsx'));
const Runs = lazy(() => import('./pages/results/Runs/index.tsx'));
const Run = lazy(() => import('./pages/results/Run/index.tsx'));
const Compare = lazy(() => import('./pages/results/Compare/index.tsx'));
const ApiKeys = lazy(() => import('./pages/developer/ApiKeys/index.tsx'));

export default function AppRoutes() {
  const { t } = useTranslation();
  return (
    <Suspense fallback={<div className="page-loading">{t('Loading...')}</div>}>
      <Routes>
        <Route path="/" element={<Navigate to="/home" replace />} />
        <Route path="/aboutusmain" element={<AboutUsMain />} />
        <Route path="/contactusmain" element={<ContactUsMain />} />
        <Route path="/aboutus" element={<AboutUs />} />
        <Route path="/contactus" element={<ContactUs />} />
        <Route path="/forgotpassword" element={<ForgotPassword />} />
        <Route path="/verify" element={<Verify />} />
        <Route path="/changepassword" element={<ChangePassword />} />
        <Route path="/changepassword/success" element={<ChangePasswordSuccess />} />
        <Route path="/k-means" element={<KMeans />} />
        <Route path="/testtoken" element={<TestToken />} />
        <Route path="/logout" element={<Logout />} />
        <Route path="/signin" element={<SignIn />} />
        <Route path="/signup" element={<SignUp />} />
        <Route path="/api-docs" element={<ApiDocs />} />
        <Route element={<ProtectedRoute />}>
          <Route path="/home" element={<Home />} />
          <Route path="/dashboard" element={<Dashboard />} />
          <Route path="/newpassword" element={<NewPassword />} />
          <Route path="/profile" element={<Profile />} />
          <Route path="/profile/edit" element={<ProfileEdit />} />
          <Route path="/profile/changepassword" element={<ProfileChangePassword />} />
          <Route path="/bruise" element={<Bruise />} />
          <Route path="/showarea/accuracy" element={<ShowAreaAccuracy />} />
          <Route path="/viewphoto/result" element={<ViewPhotoResult />} />
          <Route path="/analysis" element={<Analysis />} />
          <Route path="/analysis/result" element={<AnalysisResult />} />
          <Route path="/exportfeature" element={<ExportFeature />} />
          <Route path="/resize" element={<Resize />} />
          <Route path="/crop" element={<Crop />} />
          <Route path="/removebackground" element={<RemoveBackground />} />
          <Route path="/apikeys" element={<ApiKeys />} />
          <Route path="/results" element={<Runs />} />
          <Route path="/results/compare" element={<Compare />} />
          <Route path="/results/:id" element={<Run />} />
        </Route>
        <Route path="*" element={<Navigate to="/home" replace />} />
      </Routes>
    </Suspense>
  );
}
